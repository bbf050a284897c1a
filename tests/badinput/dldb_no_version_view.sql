-- include: dldb_base.inc.sql
-- An old dldb without view_db_version.
DROP VIEW view_db_version;
