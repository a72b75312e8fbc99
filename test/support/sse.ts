/** One server-sent event: its name and its data, parsed as JSON. */
export interface SseEvent {
  event: string;
  // Events are read as loose JSON and judged by expect().
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/**
 * POSTs with Accept: text/event-stream and reads the answer's events as they come. `status`
 * and `headers` are the response's; `events` yields until the server ends the stream.
 */
export async function postForEvents(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Headers;
  text(): Promise<string>;
  events: AsyncGenerator<SseEvent>;
}> {
  const res = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  async function* events(): AsyncGenerator<SseEvent> {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
        const data = frame
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .join("\n");
        yield { event, data: data ? JSON.parse(data) : undefined };
      }
    }
  }
  return { status: res.status, headers: res.headers, text: () => res.text(), events: events() };
}
