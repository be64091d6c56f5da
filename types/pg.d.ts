// The part of `pg` (pg-boss's driver, a dependency) Parley uses directly: the bulk loop's sent-marks connection (ADR 084).
declare module 'pg' {
  export class Client {
    constructor(config: { connectionString?: string; application_name?: string });
    connect(): Promise<void>;
    query(text: string): Promise<{ rowCount: number | null; rows: unknown[] }>;
    end(): Promise<void>;
    on(event: 'error', listener: (err: Error) => void): this;
    connection: { stream: import('node:net').Socket };
  }
  const pg: { Client: typeof Client };
  export default pg;
}
