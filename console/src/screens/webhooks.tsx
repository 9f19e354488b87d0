import { Heading } from '../components/ui.js';

export function WebhooksScreen() {
  return (
    <section>
      <Heading title="Webhooks">Webhooks</Heading>
    </section>
  );
}

export function WebhookScreen({ params }: { params: Record<string, string> }) {
  return (
    <section>
      <Heading title="Webhooks">{params.id}</Heading>
    </section>
  );
}
