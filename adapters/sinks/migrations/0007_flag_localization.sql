-- 0007_flag_localization: how a flag's relation was proven, which printed figure explains it and the
-- features its confidence was computed from (record schema 2.1, Flag.proof, Flag.localization and
-- Flag.features; pipeline/checks/localize.py and confidence.py).
--
-- proof: what the rule required before it compared (text). localization: the figure(s) whose change makes
-- every relation of the finding hold, with the corrected value and the relations it repairs (JSON, as the
-- evidence column). Rows written before this migration have neither.

ALTER TABLE flags ADD COLUMN proof text;
ALTER TABLE flags ADD COLUMN localization jsonb;
ALTER TABLE flags ADD COLUMN features jsonb;
