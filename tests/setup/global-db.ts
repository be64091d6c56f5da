import type { TestProject } from 'vitest/node';
import { createTemplate, dropDatabase, startTestServer } from './test-database';

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    templateDb: string;
  }
}

/** Once per run: a PostgreSQL server and a migrated template database that each test file clones. */
export default async function setup(project: TestProject) {
  const server = await startTestServer();
  const templateDb = `parley_template_${process.pid}`;
  await createTemplate(server.adminUrl, templateDb);
  project.provide('adminUrl', server.adminUrl);
  project.provide('templateDb', templateDb);
  return async () => {
    await dropDatabase(server.adminUrl, templateDb).catch(() => {});
    await server.stop();
  };
}
