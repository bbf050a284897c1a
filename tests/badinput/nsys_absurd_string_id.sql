-- include: nsys_base.inc.sql
-- A StringIds id of 2^40: refused rather than allocating a terabyte.
INSERT INTO StringIds VALUES (1099511627776, 'far away');
