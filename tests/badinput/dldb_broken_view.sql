-- include: dldb_base.inc.sql
-- view_aggregations reads a table that is gone.
DROP TABLE aggregations;
