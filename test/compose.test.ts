// No Docker engine runs here, so the Dockerfile and docker-compose.yml are checked statically: everything they
// name must exist (files, config variables, commands, ports) and the services must wait for healthy peers.
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { settings } from '../cli/config.ts';

const root = new URL('../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const knownEnv = new Set(Object.values(settings).map((s) => s.env));

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const { postgres, indexer, api } = compose.services;

  it('has postgres (official image, pinned major, volume), indexer and api, each with a healthcheck', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'indexer', 'postgres']);
    expect(postgres!.image).toMatch(/^postgres:\d+(\.\d+)?(-[a-z0-9]+)?$/);
    const volume = postgres!.volumes![0]!.split(':')[0]!;
    expect(compose.volumes).toHaveProperty(volume);
    for (const service of Object.values(compose.services)) expect(service.healthcheck?.test.length).toBeGreaterThan(1);
  });

  it('starts indexer and api only after the services they need are healthy', () => {
    expect(indexer!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(api!.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, indexer: { condition: 'service_healthy' } });
  });

  it('configures the app services only with variables of the config schema, pointing at the postgres service', () => {
    for (const service of [indexer!, api!]) {
      expect(service.build).toBe('.');
      for (const name of Object.keys(service.environment!)) expect(knownEnv, name).toContain(name);
      const db = new URL(service.environment!.DATABASE_URL!);
      expect(db.hostname).toBe('postgres');
      expect(db.username).toBe(postgres!.environment!.POSTGRES_USER);
      expect(db.password).toBe(postgres!.environment!.POSTGRES_PASSWORD);
      expect(db.pathname).toBe(`/${postgres!.environment!.POSTGRES_DB}`);
    }
    expect(indexer!.command).toEqual(['index']);
    expect(api!.command).toEqual(['serve']);
  });

  it('publishes and health-checks the ports the services are configured to listen on', () => {
    expect(api!.ports).toEqual([`${api!.environment!.PORT}:${api!.environment!.PORT}`]);
    expect(api!.environment!.HOST).toBe('0.0.0.0');
    expect(api!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${api!.environment!.PORT}/health`);
    expect(indexer!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${indexer!.environment!.INDEXER_PORT}/health`);
  });
});

describe('Dockerfile', () => {
  const lines = read('Dockerfile').split('\n');
  const stages = lines.filter((l) => l.startsWith('FROM '));

  it('is multi-stage, installs production dependencies only in the final stage, and runs as non-root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = lines.slice(lines.lastIndexOf(stages.at(-1)!));
    expect(final).toContain('RUN npm ci --omit=dev --ignore-scripts && npm rebuild && npm cache clean --force');
    expect(final.some((l) => /^USER (?!root)\w+/.test(l))).toBe(true);
    expect(final.some((l) => l.includes('"bin/dexlake.js"'))).toBe(true);
  });

  it('copies only paths that exist, and copies from the build stage only what the build stage holds', () => {
    const fromContext = lines.filter((l) => l.startsWith('COPY ') && !l.includes('--from'));
    const fromBuild = lines.filter((l) => l.startsWith('COPY --from=build '));
    const copiedToBuild = new Set<string>();
    for (const line of fromContext) {
      const parts = line.split(/\s+/).slice(1);
      const dest = parts.pop()!;
      for (const source of parts) {
        expect(existsSync(new URL(source, root)), source).toBe(true);
        copiedToBuild.add(dest === './' ? source : dest.replace(/^\.\//, ''));
      }
    }
    // The explorer is built there, from web/ (npm run build:web writes web/dist).
    if (lines.includes('RUN npx tsc --noEmit && npm run build:web')) copiedToBuild.add('web/dist');
    expect(fromBuild.length).toBeGreaterThan(0);
    for (const line of fromBuild) {
      const source = line.split(/\s+/)[2]!.replace(/^\/app\//, '');
      expect(copiedToBuild, source).toContain(source);
    }
    // Everything the program imports at run time is in the image.
    for (const dir of ['bin', 'cli', 'db', 'migrations', 'api', 'indexer', 'devnet', 'near', 'dexes', 'web/dist']) expect(copiedToBuild).toContain(dir);
    expect(fromBuild).toContain('COPY --from=build /app/web/dist ./web/dist');
  });
});
