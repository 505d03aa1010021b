/** An ISO instant as a short local date and time, in a <time> element; a dash for none. */
export function When({ at, none = "never" }: { at: string | null | undefined; none?: string }) {
  if (!at) return <span className="muted">{none}</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}
    </time>
  );
}
