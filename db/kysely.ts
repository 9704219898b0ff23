// Kysely's values, loaded from its CommonJS build. Its ESM build is some 400 modules, and under tsx's module
// hooks (our runtime) importing it takes about 530 ms against about 110 ms for the CommonJS build: that is most of a
// process's start time. Everything of ours takes Kysely's values from here, so there is one Kysely, never two;
// types still come from 'kysely' itself.
import { createRequire } from 'node:module';

const kysely = createRequire(import.meta.url)('kysely') as typeof import('kysely');

export const Kysely = kysely.Kysely;
export type Kysely<DB> = import('kysely').Kysely<DB>;
export const Migrator = kysely.Migrator;
export const PostgresDialect = kysely.PostgresDialect;
export const sql = kysely.sql;
