// The seed's "morning trains" story: the agent reads the whole schedule in code, keeps only the morning trips,
// looks up the first one's operator, writes a note and remembers the plan in the MCP memory server's knowledge
// graph — without the schedule ever passing through its context.
import { crm } from '@capabilities/company-crm';
import { memory } from '@capabilities/mcp-memory';
import { notes } from '@capabilities/notes';
import { trainSchedule, type Trip } from '@capabilities/train-schedule';

const trips: Trip[] = await trainSchedule.getSchedule({ station: 'Central' });
const morning = trips.filter((trip) => trip.hour < 12);
console.log(`${morning.length} of ${trips.length} trips from Central leave before noon`);

const [first] = morning;
const details = first ? await trainSchedule.getTrainDetails({ trainId: first.id }) : undefined;
if (details) console.info(`First train ${first!.id} is run by ${details.operator}`);

const pad = (n: number) => String(n).padStart(2, '0');
const lines = morning.map((t) => `${pad(t.hour)}:${pad(t.minute)} - ${t.destination} (platform ${t.platform})`);
const note = await notes.create({ title: 'Morning Trains', content: lines.join('\n') });

// An MCP tool call like any other: the entity is created once, later runs only add observations it lacks.
await memory.createEntities({ entities: [{ name: 'Morning plan', entityType: 'plan', observations: [] }] });
await memory.addObservations({ observations: [{ entityName: 'Morning plan', contents: lines }] });
const { entities } = await memory.openNodes({ names: ['Morning plan'] });
console.log(`The memory server remembers ${entities[0]?.observations.length ?? 0} departures for the morning plan`);

// A call that needs a person's approval: `agent-spaces run` asks on a terminal, else `--approve all|none` answers it.
const [customer] = await crm.searchCustomers({ query: 'Acme', limit: 1 });
const ticket = customer
  ? await crm
      .createTicket({ customerId: customer.id, subject: `${morning.length} morning departures from Central`, priority: 'low' })
      .catch((error: unknown) => (error instanceof ApprovalDeniedError ? undefined : Promise.reject(error)))
  : undefined;
console.log(ticket ? `Opened ticket ${ticket.id} for ${customer!.name}` : 'No ticket opened: the approval was denied');

export default {
  note: note.id,
  ticket: ticket?.id,
  firstOperator: details?.operator,
  remembered: entities[0]?.observations.length,
  byDestination: new Map(morning.map((t) => [t.destination, `${pad(t.hour)}:${pad(t.minute)}`])),
};
