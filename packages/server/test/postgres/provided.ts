/** The key under which the postgres global setup provides the URL of its server to the tests. */
export const ADMIN_URL_KEY = "penguinTestPostgresUrl";

declare module "vitest" {
  export interface ProvidedContext {
    penguinTestPostgresUrl: string;
  }
}
