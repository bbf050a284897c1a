-- include: dldb_base.inc.sql
-- A future dldb version the viewer does not read.
UPDATE db_version SET current_version = '2.0.0';
