-- Like shared/traces/nsys/empty_export.sqlite: no StringIds, no activity.
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2');
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
