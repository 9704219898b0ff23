// No Docker engine runs here, so the Dockerfile and docker-compose.yml are checked statically: everything they
// name must exist (files, config variables, commands, ports) and the services must wait for healthy peers.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { settings } from '../cli/config.ts';

const root = new URL('../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const knownEnv = new Set(Object.values(settings).map((s) => s.env));

interface Service {
  image?: string;
  build?: string;
  container_name?: string;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const { postgres, replica, indexer, api, haproxy } = compose.services;
  /** A bind mount's host file (relative to the repository) by its path in the container. */
  const mounted = (service: Service, target: string) => {
    const mount = service.volumes!.find((v) => v.split(':')[1] === target);
    expect(mount, target).toBeDefined();
    const file = mount!.split(':')[0]!;
    expect(existsSync(new URL(file, root)), file).toBe(true);
    return read(file);
  };

  it('has postgres and its replica (official image, pinned major, own volumes), indexer, api and haproxy, each with a healthcheck', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'haproxy', 'indexer', 'postgres', 'replica']);
    for (const db of [postgres!, replica!]) {
      expect(db.image).toMatch(/^postgres:\d+(\.\d+)?(-[a-z0-9]+)?$/);
      expect(db.volumes![0]!.split(':')[1]).toBe('/var/lib/postgresql');
    }
    expect(replica!.image).toBe(postgres!.image);
    const volumes = [postgres!, replica!].map((db) => db.volumes![0]!.split(':')[0]!);
    expect(new Set(volumes).size).toBe(2);
    for (const volume of volumes) expect(compose.volumes).toHaveProperty(volume);
    for (const service of Object.values(compose.services)) expect(service.healthcheck?.test.length).toBeGreaterThan(1);
  });

  it('starts every service only after the services it needs are healthy', () => {
    const healthy = { condition: 'service_healthy' };
    expect(replica!.depends_on).toEqual({ postgres: healthy });
    expect(indexer!.depends_on).toEqual({ postgres: healthy });
    expect(api!.depends_on).toEqual({ postgres: healthy, replica: healthy, indexer: healthy });
    expect(haproxy!.depends_on).toEqual({ api: healthy });
  });

  it('configures the primary for streaming replication: wal_level=replica, a replication role and its pg_hba line at init', () => {
    const settings = postgres!.command!.filter((_, i, all) => all[i - 1] === '-c');
    expect(postgres!.command![0]).toBe('postgres');
    expect(settings).toContain('wal_level=replica');
    expect(settings.some((s) => /^max_wal_senders=[1-9]\d*$/.test(s))).toBe(true);
    const init = mounted(postgres!, '/docker-entrypoint-initdb.d/replication.sh');
    // Executable, so the image's entrypoint runs it rather than sourcing it into itself.
    expect(statSync(new URL('docker/primary-init.sh', root)).mode & 0o111).not.toBe(0);
    expect(init).toContain('create role replicator with replication login password');
    expect(init).toContain('"$REPLICATION_PASSWORD"');
    expect(init).toMatch(/echo "host replication replicator all scram-sha-256" >> "\$PGDATA\/pg_hba.conf"/);
    expect(postgres!.environment!.REPLICATION_PASSWORD).toBeTruthy();
  });

  it('makes the replica on first start with pg_basebackup -R from the primary, then runs the official entrypoint as a hot standby', () => {
    const script = mounted(replica!, replica!.entrypoint![0]!);
    expect(replica!.entrypoint).toHaveLength(1);
    expect(statSync(new URL('docker/replica-entrypoint.sh', root)).mode & 0o111, 'the entrypoint is run directly').not.toBe(0);
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain('if [ ! -s "$PGDATA/PG_VERSION" ]; then');
    const backup = script.slice(script.indexOf('pg_basebackup'));
    for (const option of ['--host="$PRIMARY_HOST"', '--username=replicator', '--pgdata="$PGDATA"', '--write-recovery-conf', '--wal-method=stream']) expect(backup).toContain(option);
    expect(script.trimEnd().endsWith('exec docker-entrypoint.sh "$@"')).toBe(true);
    expect(replica!.environment!.PRIMARY_HOST).toBe('postgres');
    expect(replica!.environment!.PGPASSWORD).toBe(postgres!.environment!.REPLICATION_PASSWORD);
    expect(replica!.command![0]).toBe('postgres');
    expect(replica!.command).toContain('hot_standby=on');
    expect(replica!.healthcheck!.test.join(' ')).toContain('pg_is_in_recovery()');
    expect(replica!.ports).toBeUndefined();
  });

  it('configures the app services only with variables of the config schema: writes and LISTEN on postgres, the api\'s reads on the replica', () => {
    const sameDatabase = (url: string, host: string) => {
      const db = new URL(url);
      expect(db.hostname).toBe(host);
      expect(db.username).toBe(postgres!.environment!.POSTGRES_USER);
      expect(db.password).toBe(postgres!.environment!.POSTGRES_PASSWORD);
      expect(db.pathname).toBe(`/${postgres!.environment!.POSTGRES_DB}`);
    };
    for (const service of [indexer!, api!]) {
      expect(service.build).toBe('.');
      for (const name of Object.keys(service.environment!)) expect(knownEnv, name).toContain(name);
      sameDatabase(service.environment!.DATABASE_URL!, 'postgres');
    }
    sameDatabase(api!.environment!.DATABASE_READ_URL!, 'replica');
    // The api believes the X-Forwarded-For of the compose network's addresses (HAProxy's `option forwardfor`).
    expect(api!.environment!.DEXLAKE_TRUST_PROXY!.split(',')).toContain('172.16.0.0/12');
    expect(indexer!.environment!.DATABASE_READ_URL).toBeUndefined();
    expect(indexer!.command).toEqual(['index']);
    expect(api!.command).toEqual(['serve']);
  });

  it('can scale the api (no container_name, no published port) and publishes only the load balancer', () => {
    expect(api!.container_name).toBeUndefined();
    expect(api!.ports).toBeUndefined();
    for (const [name, service] of Object.entries(compose.services)) if (name !== 'haproxy') expect(service.ports, name).toBeUndefined();
    expect(api!.environment!.HOST).toBe('0.0.0.0');
    expect(api!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${api!.environment!.PORT}/health`);
    expect(indexer!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${indexer!.environment!.INDEXER_PORT}/health`);
  });

  it('puts HAProxy (official image, pinned) in front of every api container, found by Docker DNS and health-checked on /health', () => {
    expect(haproxy!.image).toMatch(/^haproxy:\d+\.\d+(-[a-z0-9]+)?$/);
    const cfg = mounted(haproxy!, '/usr/local/etc/haproxy/haproxy.cfg');
    const lines = cfg.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    /** The lines of one section (`frontend http`, `backend api`, ...), up to the next section. */
    const section = (name: string) => {
      const start = lines.indexOf(name);
      expect(start, name).toBeGreaterThanOrEqual(0);
      const end = lines.findIndex((l, i) => i > start && /^(global|defaults|frontend|backend|resolvers|listen)\b/.test(l));
      return lines.slice(start + 1, end === -1 ? undefined : end);
    };
    // Docker's embedded DNS, and one server slot per address of the compose service `api` on the api's port.
    expect(section('resolvers docker')).toContain('nameserver dns 127.0.0.11:53');
    const backend = section('backend api');
    expect(backend).toContain('option forwardfor');
    const template = backend.find((l) => l.startsWith('server-template '))!.split(/\s+/);
    expect(template[3]).toBe(`api:${api!.environment!.PORT}`);
    expect(Number(template[2])).toBeGreaterThanOrEqual(3);
    const defaults = backend.find((l) => l.startsWith('default-server '))!.split(/\s+/);
    expect(defaults).toEqual(expect.arrayContaining(['resolvers', 'docker', 'check', 'init-addr', 'none']));
    expect(backend).toContain('option httpchk GET /health');
    expect(backend).toContain('http-check expect status 200');
    // It listens on the published port and sends everything to the api backend.
    const frontend = section('frontend http');
    const [published, target] = haproxy!.ports![0]!.split(':');
    expect(frontend).toContain(`bind :${target}`);
    expect(published).toBe(target);
    expect(frontend).toContain('default_backend api');
    // WebSockets (/ws, /route/subscribe) stay open past the HTTP timeouts.
    const timeout = (name: string) => {
      const line = section('defaults').find((l) => l.startsWith(`timeout ${name} `));
      expect(line, name).toBeDefined();
      const [, value, unit] = line!.match(/^timeout \S+ (\d+)(ms|s|m|h)$/)!;
      return Number(value) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
    };
    expect(section('defaults')).toContain('mode http');
    expect(timeout('tunnel')).toBeGreaterThanOrEqual(15 * 60_000);
    expect(timeout('tunnel')).toBeGreaterThan(timeout('client'));
    expect(timeout('tunnel')).toBeGreaterThan(timeout('server'));
    // Its healthcheck asks the monitor-uri, which fails while no api server is up.
    expect(frontend).toContain('monitor-uri /haproxy/health');
    expect(frontend).toContain('monitor fail if { nbsrv(api) lt 1 }');
    expect(haproxy!.healthcheck!.test.join(' ')).toContain(`/dev/tcp/127.0.0.1/${target}`);
    expect(haproxy!.healthcheck!.test.join(' ')).toContain('GET /haproxy/health');
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
