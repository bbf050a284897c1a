-- include: nsys_base.inc.sql
-- A 5 MB kernel name and a 300 kB NVTX text: cut to 64 KiB and counted.
UPDATE StringIds SET value = 'void k<' || replace(hex(zeroblob(2500000)), '00', 'ab') || '>()' WHERE id = 3;
UPDATE NVTX_EVENTS SET text = hex(zeroblob(150000)) WHERE rowid = 1;
