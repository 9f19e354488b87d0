import { Heading } from '../components/ui.js';

export function MonitorsScreen() {
  return (
    <section>
      <Heading title="Monitors">Monitors</Heading>
    </section>
  );
}

export function MonitorScreen({ params }: { params: Record<string, string> }) {
  return (
    <section>
      <Heading title="Monitors">{params.id}</Heading>
    </section>
  );
}
