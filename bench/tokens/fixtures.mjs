// The data the token benchmark's tasks work on, made the same way on every run (a seeded generator): a knowledge graph
// for @modelcontextprotocol/server-memory, files for server-filesystem, and the example capabilities' own data
// (capabilities/data: customers, trains; capabilities/weather.handlers.mjs: readings).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A small deterministic pseudo-random generator (mulberry32), so every run sees the same data. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = ['Ada', 'Ben', 'Chloe', 'David', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kira', 'Liam', 'Mara', 'Nils', 'Olga', 'Pavel', 'Quinn', 'Rosa', 'Sami', 'Tara', 'Umar', 'Vera', 'Wes', 'Xenia', 'Yuki', 'Zane', 'Anya', 'Bruno', 'Celia', 'Dmitri'];
const LAST = ['Stone', 'Okafor', 'Lindqvist', 'Moreau', 'Kowalski', 'Haddad', 'Brandt', 'Sato', 'Ferreira', 'Weber'];
const COMPANIES = ['Acme Corp', 'Bright Labs', 'Northwind Traders', 'Sakura Foods', 'Acme Logistics', 'Fjord Analytics'];
export const CITIES = ['London', 'Tokyo', 'Berlin', 'Sydney', 'New York', 'San Francisco'];
const ROLES = ['engineer', 'manager', 'analyst', 'designer', 'sales'];
const WORDS = 'system latency throughput release customer review metric budget roadmap incident backlog deploy cache region quarter audit invoice storage network report'.split(' ');

/** The people of the knowledge graph: name, company, city, role, year joined, badge number and manager. */
export const PEOPLE = (() => {
  const next = random(7);
  return FIRST.map((first, i) => ({
    name: `${first} ${LAST[i % LAST.length]}`,
    company: COMPANIES[Math.floor(next() * COMPANIES.length)],
    city: CITIES[Math.floor(next() * CITIES.length)],
    role: ROLES[i % ROLES.length],
    joined: 2015 + Math.floor(next() * 10),
    badge: 4000 + i * 37,
    manager: i < 5 ? undefined : `${FIRST[i % 5]} ${LAST[i % 5]}`,
  }));
})();

/** The accounts of the knowledge graph: one per company, some with a renewal due. */
export const ACCOUNTS = COMPANIES.map((company, i) => ({ company, renewalDue: i % 2 === 0, region: ['EMEA', 'APAC', 'AMER'][i % 3] }));

/** The lines of the memory server's JSONL file (its own storage format) for the people, accounts and their relations. */
function memoryLines() {
  const entities = [
    ...PEOPLE.map((p) => ({
      type: 'entity',
      name: p.name,
      entityType: 'person',
      observations: [`works at ${p.company}`, `city: ${p.city}`, `role: ${p.role}`, `joined: ${p.joined}`, `badge: ${p.badge}`, `Prefers async updates; based in the ${p.city} office; mentors new ${p.role}s.`],
    })),
    ...ACCOUNTS.map((a) => ({ type: 'entity', name: a.company, entityType: 'account', observations: [`region: ${a.region}`, a.renewalDue ? 'renewal due: 2026-Q1' : 'renewal: not due'] })),
  ];
  const relations = PEOPLE.flatMap((p) => [
    { type: 'relation', from: p.name, to: p.company, relationType: 'works_at' },
    ...(p.manager ? [{ type: 'relation', from: p.name, to: p.manager, relationType: 'reports_to' }] : []),
  ]);
  return [...entities, ...relations].map((line) => JSON.stringify(line)).join('\n');
}

/** The orders of `orders.csv`: id, customer, amount, month, status. */
export const ORDERS = (() => {
  const next = random(11);
  return Array.from({ length: 300 }, (_, i) => ({
    id: `ord_${String(i + 1).padStart(4, '0')}`,
    customerId: `cus_00${1 + Math.floor(next() * 8)}`,
    amount: Math.round((10 + next() * 490) * 100) / 100,
    date: `2026-0${1 + Math.floor(next() * 6)}-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}`,
    status: next() < 0.12 ? 'refunded' : 'paid',
  }));
})();

/** The items of `inventory.json`. */
export const INVENTORY = (() => {
  const next = random(5);
  return Array.from({ length: 60 }, (_, i) => ({ sku: `SKU-${100 + i}`, name: `${WORDS[i % WORDS.length]} kit ${i}`, qty: Math.floor(next() * 90), warehouse: 'ABC'[i % 3] }));
})();

/** `report.md`: a long document of sections of generated prose (about 30 KB). */
export const REPORT = (() => {
  const next = random(3);
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(next() * 10) }, () => WORDS[Math.floor(next() * WORDS.length)]);
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
  };
  const sections = Array.from({ length: 12 }, (_, s) => [`## Section ${s + 1}`, '', ...Array.from({ length: 6 }, () => Array.from({ length: 4 }, sentence).join(' ')), ''].join('\n'));
  return ['# Quarterly operations report', '', ...sections].join('\n');
})();

/** `notes/note-NN.txt`: twelve short notes, some with TODO lines. */
export const NOTE_FILES = Array.from({ length: 12 }, (_, i) => ({
  name: `note-${String(i + 1).padStart(2, '0')}.txt`,
  text: [`Meeting ${i + 1} with ${PEOPLE[i].name}`, ...Array.from({ length: 3 + (i % 4) }, (_, j) => ((i + j) % 3 === 0 ? `TODO: follow up item ${j + 1}` : `Discussed ${WORDS[(i + j) % WORDS.length]} plans`))].join('\n'),
}));

/** `archive/<year>/<month>/*.log` files, for searches over a deeper tree. */
export const ARCHIVE = Array.from({ length: 3 }, (_, y) => Array.from({ length: 4 }, (_, m) => Array.from({ length: 3 }, (_, k) => `archive/${2023 + y}/${String(m + 1).padStart(2, '0')}/${k === 2 ? 'summary.txt' : `run-${k}.log`}`))).flat(2);

/** Writes the files of the filesystem server under `root` and the memory server's file `memoryFile`. */
export async function writeFixtures(root, memoryFiles) {
  await mkdir(join(root, 'notes'), { recursive: true });
  const csv = ['id,customerId,amount,date,status', ...ORDERS.map((o) => `${o.id},${o.customerId},${o.amount},${o.date},${o.status}`)].join('\n');
  await writeFile(join(root, 'orders.csv'), `${csv}\n`);
  await writeFile(join(root, 'inventory.json'), JSON.stringify(INVENTORY, null, 2));
  await writeFile(join(root, 'report.md'), REPORT);
  for (const note of NOTE_FILES) await writeFile(join(root, 'notes', note.name), note.text);
  for (const file of ARCHIVE) {
    await mkdir(join(root, file, '..'), { recursive: true });
    await writeFile(join(root, file), `log of ${file}\n`);
  }
  for (const file of memoryFiles) await writeFile(file, `${memoryLines()}\n`);
}
