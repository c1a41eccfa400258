// The official TypeScript SDK server (McpServer, SDK 1.32.2) with 200 tools: 20 services of 10 operations
// each, with descriptions and typed parameters as real servers have them, for the tools-on-demand tests
// (tests/integration/mcp/tool_search_mcp_test.cpp). Each tool answers with its name and arguments as JSON.
//   node many_tools_server.mjs            StdioServerTransport
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const services = {
  github: 'GitHub repositories', gitlab: 'GitLab projects', jira: 'Jira issues', linear: 'Linear tickets',
  slack: 'Slack channels', gmail: 'Gmail messages', calendar: 'Google Calendar events', drive: 'Google Drive files',
  notion: 'Notion pages', confluence: 'Confluence spaces', stripe: 'Stripe payments', hubspot: 'HubSpot contacts',
  salesforce: 'Salesforce opportunities', zendesk: 'Zendesk tickets', datadog: 'Datadog monitors',
  pagerduty: 'PagerDuty incidents', aws_s3: 'Amazon S3 buckets', postgres: 'PostgreSQL tables',
  kubernetes: 'Kubernetes deployments', weather: 'weather forecasts',
};
const operations = [
  ['list', 'List', 'matching a filter, newest first, paginated', { filter: z.string().optional().describe('A search filter, e.g. "status:open"'), limit: z.number().int().min(1).max(100).optional().describe('How many to return (default 20)'), cursor: z.string().optional().describe('The cursor of the next page') }],
  ['get', 'Get one of the', 'by its identifier, with all its fields', { id: z.string().describe('The identifier') }],
  ['create', 'Create a new item among the', 'with the given fields; returns the created item', { title: z.string().describe('The title or name'), body: z.string().optional().describe('The description or content, Markdown allowed'), labels: z.array(z.string()).optional().describe('Labels or tags to attach') }],
  ['update', 'Update one of the', 'changing only the given fields', { id: z.string().describe('The identifier'), fields: z.record(z.string()).describe('The fields to change and their new values') }],
  ['delete', 'Delete one of the', 'permanently; cannot be undone', { id: z.string().describe('The identifier'), confirm: z.boolean().describe('Must be true') }],
  ['search', 'Search the', 'by full-text query over titles and contents', { query: z.string().describe('The words to search for'), limit: z.number().int().optional().describe('How many results') }],
  ['comment', 'Add a comment to one of the', 'visible to everyone with access', { id: z.string().describe('The identifier'), text: z.string().describe('The comment, Markdown allowed') }],
  ['assign', 'Assign one of the', 'to a person or team', { id: z.string().describe('The identifier'), assignee: z.string().describe('User name or e-mail of the assignee') }],
  ['export', 'Export the', 'as CSV or JSON for a date range', { format: z.enum(['csv', 'json']).describe('The file format'), since: z.string().optional().describe('ISO 8601 start date'), until: z.string().optional().describe('ISO 8601 end date') }],
  ['stats', 'Summarize the', 'counts and trends over a period', { period: z.enum(['day', 'week', 'month']).describe('The period to group by') }],
];

const server = new McpServer({ name: 'many-tools', version: '1.0.0' });
for (const [service, noun] of Object.entries(services)) {
  for (const [verb, lead, tail, shape] of operations) {
    const name = `${service}_${verb}`;
    server.registerTool(name, { description: `${lead} ${noun} ${tail}.`, inputSchema: shape },
      async (args) => ({ content: [{ type: 'text', text: JSON.stringify({ tool: name, args }) }] }));
  }
}
await server.connect(new StdioServerTransport());
