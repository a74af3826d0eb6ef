/** The yardstick: a minimal Express route answering 202, run as its own process like the scheduler. */
import express from 'express';

const app = express();
app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});
app.post('/x', express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
  res.status(202).json({ message: 'Webhook accepted', status: 'queued' });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
