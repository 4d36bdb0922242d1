// Using a space from a Node app. Run from the repository root after `npm run demo` (which builds the capabilities):
//   node examples/sdk.mjs
import { createSpace } from '@agent-spaces/sdk';

const space = await createSpace({ capabilities: ['train-schedule', 'notes'] });
try {
  const run = space.run(`
    import { trainSchedule } from '@capabilities/train-schedule';
    const trips = await trainSchedule.getSchedule({ station: 'Central' });
    console.log('trips:', trips.length);
    return trips.filter((t) => t.hour < 12).length;
  `);
  for await (const event of run) console.log(`event ${event.seq}: ${event.type}`);
  const outcome = await run;
  console.log(outcome.ok ? `morning trips: ${outcome.result}` : `failed: ${outcome.error.code} ${outcome.error.message}`);
  console.log(`took ${outcome.stats.durationMs.toFixed(1)} ms with ${outcome.stats.capabilityCalls} capability call(s)`);

  const session = space.createSession();
  await session.run('const seen = new Set<string>(); seen.add("Central");');
  const again = await session.run('return [...seen];');
  console.log('session kept state:', again.ok && again.result);
  await session.close();
} finally {
  await space.close();
}
