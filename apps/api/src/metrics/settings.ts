/** Where `GET /metrics` is served (METRICS_TOKEN, METRICS_PORT, METRICS_HOST). */
export interface MetricsSettings {
  /** Required as `Authorization: Bearer <token>` wherever `/metrics` answers; it answers on the API's port only with one. */
  readonly token: string | undefined;
  /** A listener of its own for `/metrics` (API and worker processes); none when absent. */
  readonly port: number | undefined;
  readonly host: string;
}
