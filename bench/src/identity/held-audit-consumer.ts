import { AUDIT_SUBJECT } from "@svc/lib/audit";
import type { BusSubscription, EventBus } from "@svc/lib/bus";

/**
 * The platform's bus with the audit-trail consumer held back until `release()`: the bench puts a
 * backlog on the stream first, so the append rate is timed with no publisher sharing the core and
 * none of the platform's start-up inside the window. Every other subscription is untouched.
 */
export function holdAuditConsumer(bus: EventBus) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: EventBus = {
    ...bus,
    subscribe(subject, opts, handler): Promise<BusSubscription> {
      if (subject !== AUDIT_SUBJECT) return bus.subscribe(subject, opts, handler);
      const real = released.then(() => bus.subscribe(subject, opts, handler));
      return Promise.resolve({ stop: async () => (await real).stop() });
    },
  };
  return { bus: held, release };
}
