// A run stops its calls with one AbortSignal, shared by every request in flight. Handing that
// signal to each request adds one abort listener per request to it (the OpenAI SDK adds its
// own, as does a backoff sleep), so a worker with more than ten requests in flight trips
// Node's MaxListenersExceededWarning, and a long run holds a listener per request. Instead
// each request gets a signal of its own, and the shared signal has one listener that aborts
// every request still in flight.

const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

/** A request's own signal, aborted with `shared`; `release` when the request is done. */
export interface RequestSignal {
  signal: AbortSignal;
  release(): void;
}

/**
 * A signal for one request that aborts when `shared` does, while `shared` carries a single
 * abort listener however many requests are in flight.
 */
export function requestSignal(shared: AbortSignal): RequestSignal {
  const controller = new AbortController();
  if (shared.aborted) {
    controller.abort(shared.reason);
    return { signal: controller.signal, release: () => {} };
  }
  let requests = inFlight.get(shared);
  if (!requests) {
    const created = new Set<AbortController>();
    inFlight.set(shared, created);
    shared.addEventListener(
      'abort',
      () => {
        for (const request of created) request.abort(shared.reason);
        created.clear();
      },
      { once: true },
    );
    requests = created;
  }
  const set = requests;
  set.add(controller);
  return { signal: controller.signal, release: () => set.delete(controller) };
}
