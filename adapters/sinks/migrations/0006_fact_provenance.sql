-- 0006_fact_provenance: who mapped a fact's label to its metric (record schema 2.0, Fact.provenance).
--
-- 'taxonomy' for the deterministic reader's facts; 'model_corroborated' / 'model_uncorroborated' for the
-- figures of a label the model mapped and code verified (pipeline/model/verify.py), corroborated when a
-- figure the taxonomy mapped agrees with it. Existing rows were all read by the taxonomy.

ALTER TABLE facts ADD COLUMN provenance text NOT NULL DEFAULT 'taxonomy';
