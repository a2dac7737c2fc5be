// The package as a user installs it: `npm pack`, that tarball installed into an empty folder with no
// registry to reach, and its `claw-deploy` run through the installed bin.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ROOT, collect } from './harness.ts';

/** npm, with this Node first on the PATH (the bin's `#!/usr/bin/env node` finds it too). */
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
// No registry to reach: an install that needed anything but the tarball would fail here.
const OFFLINE = ['--offline', '--registry', 'http://127.0.0.1:9/', '--no-audit', '--no-fund', '--ignore-scripts'];

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, env: { ...process.env, PATH }, encoding: 'utf8', stdio: 'pipe' });
}

/** The packed tarball, installed into a new empty folder; the path of its `claw-deploy`. */
export function installPacked(): { bin: string; folder: string; files: string[] } {
  const packed = mkdtempSync(join(tmpdir(), 'claw-pack-'));
  const [{ filename, files }] = JSON.parse(npm(['pack', '--json', '--pack-destination', packed], ROOT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const folder = mkdtempSync(join(tmpdir(), 'claw-install-'));
  writeFileSync(join(folder, 'package.json'), '{"private": true}\n');
  // An empty cache too: nothing a past install left behind can stand in for a missing dependency.
  npm(['install', ...OFFLINE, '--cache', join(packed, 'cache'), join(packed, filename)], folder);
  return { bin: join(folder, 'node_modules', '.bin', 'claw-deploy'), folder, files: files.map((f) => f.path) };
}

/** The installed `claw-deploy` with `args` in `cwd`: only PATH, HOME and `env` in its environment. */
export async function runPacked(bin: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawn(bin, args, { cwd, env: { PATH, HOME: process.env.HOME ?? '', ...env }, stdio: 'pipe' });
  child.stdin.end();
  return collect(child);
}
