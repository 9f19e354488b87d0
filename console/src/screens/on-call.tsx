import { Heading } from '../components/ui.js';

export function OnCallScreen() {
  return (
    <section>
      <Heading title="On call">On call</Heading>
    </section>
  );
}
