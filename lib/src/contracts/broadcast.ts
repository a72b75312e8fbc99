import {
  create,
  fromBinary,
  getOption,
  toBinary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { broadcast_subject } from "@svc/gen/svc/events/v1/events_pb.js";
import type { BusSubscription, EventBus } from "../bus/index.js";

/** The subject a broadcast message travels on, from its `broadcast_subject` option. */
export function subjectOf(schema: DescMessage): string {
  const subject = getOption(schema, broadcast_subject);
  if (!subject) throw new TypeError(`${schema.typeName} has no broadcast_subject option`);
  return subject;
}

/**
 * Broadcasts one typed message (binary) on its declared subject. The subject names the type (one
 * message per subject, by the proto's option), so no header travels: a kill-switch broadcast
 * fans out to every runner, and each header would be parsed once per subscriber.
 * A broadcast is best effort: the bus being down must never stop the caller.
 */
export async function broadcastMessage<Desc extends DescMessage>(
  bus: EventBus,
  schema: Desc,
  init: MessageInitShape<Desc>,
): Promise<void> {
  const data = toBinary(schema, create(schema, init));
  await bus.broadcast(subjectOf(schema), data).catch(() => undefined);
}

/**
 * Listens to one typed broadcast. A message that does not decode is dropped: a broadcast only
 * hastens what the listener would learn anyway.
 */
export function listenMessage<Desc extends DescMessage>(
  bus: EventBus,
  schema: Desc,
  handler: (message: MessageShape<Desc>) => void,
): BusSubscription {
  return bus.listen(subjectOf(schema), (m) => {
    let message: MessageShape<Desc>;
    try {
      message = fromBinary(schema, m.data);
    } catch {
      return;
    }
    handler(message);
  });
}
