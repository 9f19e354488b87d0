import { Heading } from '../components/ui.js';

export function ProfileScreen() {
  return (
    <section>
      <Heading title="Profile">Profile</Heading>
    </section>
  );
}
