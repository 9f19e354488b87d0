// The local SES mailbox (aws-ses-v2-local) in a process of its own, so that parsing and storing
// mail never runs on the gateway's thread. Started by service.ts with fork(); reports { port } or
// { error } over IPC once, and exits when its parent goes away.
import awsSesV2Local from 'aws-ses-v2-local';

const start = typeof awsSesV2Local === 'function' ? awsSesV2Local : awsSesV2Local.default;
const fail = (error) => {
  process.send?.({ error: `${error.code ?? error.name}: ${error.message}` });
  process.exit(1);
};
process.on('uncaughtException', fail);
process.on('disconnect', () => process.exit(0));
const server = await start({ host: process.env.MAILBOX_HOST ?? '127.0.0.1', port: Number(process.env.MAILBOX_PORT ?? 0) });
process.send?.({ port: server.address().port });
