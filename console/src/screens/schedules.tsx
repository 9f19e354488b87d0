import { Heading } from '../components/ui.js';

export function SchedulesScreen() {
  return (
    <section>
      <Heading title="Schedules">Schedules</Heading>
    </section>
  );
}

export function ScheduleScreen({ params }: { params: Record<string, string> }) {
  return (
    <section>
      <Heading title="Schedules">{params.id}</Heading>
    </section>
  );
}
