import { TAG_COLOUR_HEX, type TagColour } from '~/models/productivity/constants';

export function TagPills({ tags }: { tags: { id: number; name: string; color: string }[] }) {
  if (!tags.length) return null;
  return (
    <span className="row" data-testid="tags">
      {tags.map((t) => (
        <span key={t.id} className="badge" style={{ borderLeft: `3px solid ${TAG_COLOUR_HEX[t.color as TagColour] ?? '#767676'}` }}>
          {t.name}
        </span>
      ))}
    </span>
  );
}
