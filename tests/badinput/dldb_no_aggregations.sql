-- include: dldb_base.inc.sql
-- DLPROF_init() without DLPROF_aggregate(): nothing to show.
DELETE FROM aggregations;
