import type { EventBridgeEvent } from 'aws-lambda';
import { EVENT_TYPES, type EventType } from '../../shared/platform/events/model.js';

/** An event from the service's bus, as EventBridge hands it to a target. */
export type BusEvent = EventBridgeEvent<string, unknown>;

export function eventTypeOf(event: BusEvent): EventType {
  const type = event['detail-type'];
  if (!(EVENT_TYPES as string[]).includes(type)) throw new Error(`Unknown event type: ${type}`);
  return type as EventType;
}
