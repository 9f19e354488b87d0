import { Heading } from '../components/ui.js';

export function NotFoundScreen() {
  return (
    <section>
      <Heading title="Not found">Nothing here</Heading>
      <p>
        This address is not a page of the console. <a href="/">Go to the incidents</a>.
      </p>
    </section>
  );
}
