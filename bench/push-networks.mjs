/**
 * Delivery networks for the push suite (bench/push.ts), loaded by the server under measure with
 * BASALT_TEST_PUSH_NETWORKS: every network of every app, answering every device as sent at once.
 * What is measured is the pipeline (audience pages, the queue, the status updates), not a
 * network's latency. Plain JavaScript: the benchmark runs the compiled server (dist/), which
 * cannot import TypeScript.
 */
const NAMES = ['apns', 'fcm', 'wns', 'webpush'];

export default function networksOf() {
  return Object.fromEntries(
    NAMES.map((name) => [
      name,
      {
        name,
        async send(devices) {
          return devices.map((device) => ({ objectId: device.objectId, ok: true }));
        },
        async close() {},
      },
    ]),
  );
}
