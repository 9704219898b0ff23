// Applies the migrations of migrations/ with Kysely's migrator, through a provider of our own: Kysely's
// FileMigrationProvider imports from inside node_modules, which vitest refuses for .ts files.
import type { Kysely } from 'kysely';
import { Migrator } from './kysely.ts';
import { migrations } from '../migrations/index.ts';

/** Brings the schema to the latest migration; returns the names applied by this call (empty when up to date). */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (error || failed) {
    const cause = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${cause}`.replace('  ', ' '));
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
