import type { schema } from '../../db/client';
import type { DomainEventType } from '../../app/models/events/types';

export type DomainEvent = typeof schema.domainEvents.$inferSelect;

/** A reaction to domain events. It must call app/models functions only, so that the UI and the engine share one set of rules. */
export type EventHandler = {
  name: string;
  on: DomainEventType[];
  handle: (event: DomainEvent) => Promise<Record<string, unknown> | void>;
};
