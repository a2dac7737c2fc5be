// The structure's one rule, held by a test: no import circle in src/ (type-only and dynamic imports
// count) and no import from a lower layer up to a higher one (the layers are drawn in
// ARCHITECTURE.md and listed in imports.ts). Also who may touch the runner and the network.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, ROOT, circles, folderGraph, folderOf, importGraph, layerOf, upwardImports } from './imports.ts';

const graph = importGraph();

describe('the structure of src/', () => {
  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps every file of src/ in a room of its layer, but the one entry of the bundle', () => {
    expect([...graph.keys()].filter((file) => folderOf(file) === null)).toEqual(['src/index.ts']);
    expect([...graph.keys()].filter((file) => layerOf(file) < 0)).toEqual([]);
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
      ['src/contract/command.ts', new Set(['src/commands/preview.ts'])],
      ['src/commands/preview.ts', new Set(['src/contract/command.ts'])],
    ]);
    expect(circles(knot)).toEqual([['src/commands/preview.ts', 'src/contract/command.ts']]);
    expect(upwardImports(knot)).toEqual(['src/contract/command.ts -> src/commands/preview.ts']);
  });

  it('puts every file in a layer it was meant for', () => {
    expect(LAYERS[layerOf('src/action/main.ts')].name).toBe('entries');
    expect(LAYERS[layerOf('src/commands/health.ts')].name).toBe('commands');
    expect(LAYERS[layerOf('src/health/incidents.ts')].name).toBe('features');
    expect(LAYERS[layerOf('src/api/client.ts')].name).toBe('api');
    expect(LAYERS[layerOf('src/api/transport.ts')].name).toBe('transport');
    expect(LAYERS[layerOf('src/shared/format.ts')].name).toBe('shared');
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
    expect(touching(/'@actions\/core'/).sort()).toEqual(['src/action/main.ts', 'src/action/post.ts']);
    expect(touching(/'@actions\/github'/).every((f) => /^src\/action\/(main|post)\.ts$|^src\/github\//.test(f))).toBe(
      true,
    );
    expect(touching(/'@actions\/http-client'|'node:https?'|\bfetch\(/).every((f) => f.startsWith('src/api/'))).toBe(
      true,
    );
  });
});
