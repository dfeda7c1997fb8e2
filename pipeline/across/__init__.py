"""Tie-out across documents: a document against its issuer's earlier documents (issue 27)."""
