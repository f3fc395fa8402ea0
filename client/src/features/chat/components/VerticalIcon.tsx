import { MessageCircle, Scale, Sparkles, TrendingUp, Users, type LucideIcon, type LucideProps } from 'lucide-react';
import type { VerticalIcon as VerticalIconName } from '@shared/catalog/verticals';

/** The catalog names each vertical's icon; this maps the names to lucide components. */
const ICONS: Record<VerticalIconName, LucideIcon> = { MessageCircle, Users, Scale, TrendingUp, Sparkles };

export function VerticalIcon({ name, ...props }: { name: VerticalIconName } & LucideProps) {
  const Icon = ICONS[name];
  return <Icon aria-hidden="true" data-icon={name} {...props} />;
}
