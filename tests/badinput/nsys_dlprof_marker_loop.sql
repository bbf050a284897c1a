-- include: nsys_base.inc.sql
-- DLProf-style NVTX markers (Python dict reprs) with broken args lists: a
-- stray '}' once made the shape parser loop forever.
UPDATE NVTX_EVENTS SET text = '{''mod'': ''Tensor'', ''op'': ''conv2d'', ''args'': [}]}' WHERE rowid = 1;
UPDATE NVTX_EVENTS SET text = '{''mod'': ''Tensor'', ''op'': ''linear'', ''args'': [,,{''type'': ''tensor'', ''shape'': (1,}]}' WHERE rowid = 2;
UPDATE NVTX_EVENTS SET text = '{''op'': ''conv2d'', ''args'': [{''type'': ''tensor'', ''shape'': (99999999999999999999, -1, 0, 1)}, {''type'': ''tensor'', ''shape'': (1, 2, 3, 4)}]}' WHERE rowid = 3;
