import { Heading } from '../components/ui.js';

export function TeamsScreen() {
  return (
    <section>
      <Heading title="Teams">Teams</Heading>
    </section>
  );
}

export function TeamScreen({ params }: { params: Record<string, string> }) {
  return (
    <section>
      <Heading title="Teams">{params.id}</Heading>
    </section>
  );
}
