/** An honest placeholder for an area that is not built yet: says so, and what will be there. */
export function ComingSoon({ area, description }: { area: string; description: string }) {
  return (
    <div className="page coming-soon" data-testid="coming-soon">
      <h1>{area}</h1>
      <p className="pill">Coming soon</p>
      <p className="muted">{description}</p>
      <p className="muted">This part of Parley is not built yet. Nothing here pretends to work.</p>
    </div>
  );
}
