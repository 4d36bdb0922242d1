/**
 * `@agent-spaces/bridge/shared`: the stores that replicas of a service share — PostgreSQL (`SharedDatabase` hands out
 * the audit, approval, run and session stores, with the schema's migrations) and Redis (`SharedCounters`: rate-limit
 * windows and request counters). An entry of its own, so that a space that uses the embedded stores never loads it
 * (docs/deployment.md); `pg` and `ioredis` are imported only when a database or Redis is opened.
 */
export { SharedDatabase, type Database, type Query, type SharedDatabaseOptions } from './stores/postgres/database.js';
export { MIGRATIONS, type Migration } from './stores/postgres/migrations.js';
export { PostgresAuditArchive, PostgresAuditStore } from './stores/postgres/audit.js';
export { PostgresApprovalStore, type PostgresApprovalStoreOptions } from './stores/postgres/approvals.js';
export { PostgresRunStore, type PostgresRunStoreOptions } from './stores/postgres/runs.js';
export { PostgresSessionStore } from './stores/postgres/sessions.js';
export { RedisRateLimitStore, SharedCounters, type SharedCountersOptions } from './stores/redis.js';
