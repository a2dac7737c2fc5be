// The structure's one rule, held by a test: no import circle in src/ (type-only and dynamic imports
// count) and no import from a lower layer up to a higher one (the layers are drawn in
// ARCHITECTURE.md and listed in imports.ts). Also who may touch the runner and the network.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, ROOT, circles, folderGraph, importGraph, layerOf, upwardImports } from './imports.ts';

const graph = importGraph();

describe('the structure of src/', () => {
  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no two folders that import each other, directly or round a circle', () => {
    expect(circles(folderGraph(graph))).toEqual([]);
  });

  it('finds folders that lean on each other when there are some (the check can fail)', () => {
    const rooms = new Map([
      ['src/health/over-time.ts', new Set(['src/report/markdown.ts'])],
      ['src/report/markdown.ts', new Set(['src/health/uptime.ts'])],
      ['src/health/uptime.ts', new Set<string>()],
    ]);
    expect(circles(folderGraph(rooms))).toEqual([['src/health/', 'src/report/']]);
  });

  it('imports only downward: entries → run → commands → contract → features → conversation → api → transport → shared', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('finds circles and upward imports when there are some (the checks can fail)', () => {
    const knot = new Map([
      ['src/command.ts', new Set(['src/preview/command.ts'])],
      ['src/preview/command.ts', new Set(['src/command.ts'])],
    ]);
    expect(circles(knot)).toEqual([['src/command.ts', 'src/preview/command.ts']]);
    expect(upwardImports(knot)).toEqual(['src/command.ts -> src/preview/command.ts']);
  });

  it('puts every file in a layer it was meant for', () => {
    expect(LAYERS[layerOf('src/main.ts')].name).toBe('entries');
    expect(LAYERS[layerOf('src/health/command.ts')].name).toBe('commands');
    expect(LAYERS[layerOf('src/health/incidents.ts')].name).toBe('features');
    expect(LAYERS[layerOf('src/api/client.ts')].name).toBe('api');
    expect(LAYERS[layerOf('src/api/transport.ts')].name).toBe('transport');
    expect(LAYERS[layerOf('src/format.ts')].name).toBe('shared');
    // Each feature renders its own report from the markup room below every feature.
    expect(layerOf('src/report/markdown.ts')).toBeGreaterThan(layerOf('src/health/status-page.ts'));
    // The comparison engine sits below its users (checks, deploy, previews, health, the CLI).
    expect(layerOf('src/compare/engine.ts')).toBeGreaterThan(layerOf('src/checks/gate.ts'));
  });

  it('leaves the runner to the entries and HTTP to the transport', () => {
    const touching = (pattern: RegExp) =>
      [...graph.keys()].filter((file) =>
        pattern.test(readFileSync(join(ROOT, file), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')),
      );
    expect(touching(/'@actions\/core'/).sort()).toEqual(['src/main.ts', 'src/post.ts']);
    expect(touching(/'@actions\/github'/).every((f) => /^src\/(main|post)\.ts$|^src\/github\//.test(f))).toBe(true);
    expect(touching(/'@actions\/http-client'|'node:https?'|\bfetch\(/).every((f) => f.startsWith('src/api/'))).toBe(
      true,
    );
  });
});
