import { Heading } from '../components/ui.js';

export function PoliciesScreen() {
  return (
    <section>
      <Heading title="Escalation policies">Escalation policies</Heading>
    </section>
  );
}

export function PolicyScreen({ params }: { params: Record<string, string> }) {
  return (
    <section>
      <Heading title="Escalation policies">{params.id}</Heading>
    </section>
  );
}
