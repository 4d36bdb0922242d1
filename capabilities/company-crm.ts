// The seed's Example 3 "Custom Company SDK": a CRM backed by local customer data (capabilities/data/customers.json).
import { defineTool } from '@agent-spaces/capabilities';
import customers from './data/customers.json' with { type: 'json' };

/** A customer account. */
interface Customer {
  id: string;
  name: string;
  email: string;
  company: string;
  tier: 'free' | 'pro' | 'enterprise';
}

/** How urgent a ticket is. */
type TicketPriority = 'low' | 'medium' | 'high';

/** A support ticket. */
interface Ticket {
  /** `T-1001`, `T-1002`, ... */
  id: string;
  customerId: string;
  subject: string;
  priority: TicketPriority;
  status: 'open';
  /** ISO-8601 timestamp. */
  createdAt: string;
}

const tickets: Ticket[] = [];

export const crm = defineTool({
  name: 'crm',
  description: 'Company CRM system',
  version: '1.0.0',

  functions: {
    searchCustomers: {
      description: 'Search for customers by name, email or company (case-insensitive)',
      parameters: {
        query: { type: 'string', required: true },
        limit: { type: 'number', default: 10, minimum: 1 },
      },
      returns: {} as Customer[],
      handler: async ({ query, limit }) => {
        const needle = query.toLowerCase();
        return (customers as Customer[])
          .filter((c) => [c.name, c.email, c.company].some((field) => field.toLowerCase().includes(needle)))
          .slice(0, limit ?? 10);
      },
    },

    createTicket: {
      description: 'Create support ticket',
      parameters: {
        customerId: { type: 'string', required: true },
        subject: { type: 'string', required: true },
        priority: { type: 'string', enum: ['low', 'medium', 'high'], default: 'medium' },
      },
      returns: {} as Ticket,
      requiresApproval: true,
      approvalMessage: (p) => `Create ${p.priority ?? 'medium'} ticket for customer ${p.customerId}?`,
      handler: async ({ customerId, subject, priority }) => {
        if (!customers.some((c) => c.id === customerId)) throw new Error(`No customer with id "${customerId}"`);
        const ticket: Ticket = {
          id: `T-${1001 + tickets.length}`,
          customerId,
          subject,
          priority: priority ?? 'medium',
          status: 'open',
          createdAt: new Date().toISOString(),
        };
        tickets.push(ticket);
        return ticket;
      },
    },
  },
});
