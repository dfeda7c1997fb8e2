"""Review stores: flags with their review state, analysts' decisions and the audit trail."""
