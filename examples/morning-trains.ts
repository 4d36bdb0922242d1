// The seed's "morning trains" story: the agent reads the whole schedule in code, keeps only the morning trips,
// looks up the first one's operator, and writes a note — without the schedule ever passing through its context.
import { notes } from '@capabilities/notes';
import { trainSchedule, type Trip } from '@capabilities/train-schedule';

const trips: Trip[] = await trainSchedule.getSchedule({ station: 'Central' });
const morning = trips.filter((trip) => trip.hour < 12);
console.log(`${morning.length} of ${trips.length} trips from Central leave before noon`);

const [first] = morning;
const details = first ? await trainSchedule.getTrainDetails({ trainId: first.id }) : undefined;
if (details) console.info(`First train ${first!.id} is run by ${details.operator}`);

const pad = (n: number) => String(n).padStart(2, '0');
const note = await notes.create({
  title: 'Morning Trains',
  content: morning.map((t) => `${pad(t.hour)}:${pad(t.minute)} - ${t.destination} (platform ${t.platform})`).join('\n'),
});

export default {
  note: note.id,
  firstOperator: details?.operator,
  byDestination: new Map(morning.map((t) => [t.destination, `${pad(t.hour)}:${pad(t.minute)}`])),
};
