import { Link } from '@tanstack/react-router';

/** The console's areas. */
const AREAS = [
  { to: '/', label: 'Overview' },
  { to: '/project', label: 'Project' },
  { to: '/contracts', label: 'Contracts' },
  { to: '/transactions', label: 'Transactions' },
  { to: '/events', label: 'Event notifier' },
  { to: '/webhooks', label: 'Webhooks' },
] as const;

export function Nav() {
  return (
    <nav className="nav" aria-label="Console">
      <ul>
        {AREAS.map((area) => (
          <li key={area.to}>
            <Link to={area.to} activeOptions={{ exact: area.to === '/' }}>
              {area.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
