import { redirect, type ActionFunctionArgs } from '@remix-run/node';

/**
 * The ceiling of a form submission (bench/forms.ts): a bare Remix action that reads the url-encoded body and answers
 * the same 302 as Parley's /f/{code}, with no database, no parse, no captcha. What Remix and Express cost alone.
 */
export async function action({ request }: ActionFunctionArgs) {
  const body = await request.formData();
  if ([...body.keys()].length === 0) return new Response('nothing sent', { status: 400 });
  return redirect('/submit?sent=1');
}

export default function Submit() {
  return <p>Thanks</p>;
}
