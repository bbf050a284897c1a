-- include: nsys_base.inc.sql
-- Names that are not UTF-8 (lone continuation bytes, overlong forms, a NUL
-- inside, a cut 4-byte sequence) and a name with HTML in it.
UPDATE StringIds SET value = CAST(x'766f6c7461ff80c0af5f6b65726e656c' AS TEXT) WHERE id = 3;
UPDATE StringIds SET value = CAST(x'61006200f09f98' AS TEXT) WHERE id = 2;
UPDATE NVTX_EVENTS SET text = CAST(x'617465e23a3a6d6d' AS TEXT) WHERE rowid = 1;
UPDATE NVTX_EVENTS SET text = '<script>alert(1)</script>, seq = 9' WHERE rowid = 2;
