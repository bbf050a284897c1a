// job.mjs - the ranks page tests' job: a generated job of RANKS ranks and
// ITERS iterations (RANKS_GEN, tests/ranks/ranks_gen.c) imported as a
// folder by DLPROF into a temporary directory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Makes the job under a new temporary directory named after prefix;
 * returns { work, db }: the directory (job/ holds the traces) and the dldb. */
export function importedJob(prefix, ranks, iters) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const job = path.join(work, 'job');
  fs.mkdirSync(job);
  let r = spawnSync(process.env.RANKS_GEN, [job, String(ranks), String(iters)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = path.join(work, 'out');
  fs.mkdirSync(out);
  r = spawnSync(process.env.DLPROF, [`--database=${job}`, `--output_path=${out}`, '-v', 'quiet'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { work, db: path.join(out, 'dlprof_dldb.sqlite') };
}
