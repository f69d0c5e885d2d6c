import { createPgTestDatabase } from '@mountain/testkit/testDatabase.ts';
import { createDb, type Db } from '#api/db/db.ts';

export interface TestDatabase {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database copied from the run's template, with the API's pool on it; dropped by `drop()`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const database = await createPgTestDatabase();
  const db = createDb(database.url);
  return {
    db,
    url: database.url,
    async drop() {
      await db.close();
      await database.drop();
    },
  };
}
