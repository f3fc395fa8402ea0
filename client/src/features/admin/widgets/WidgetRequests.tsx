import { useQuery } from '@tanstack/react-query';
import { widgetsApi } from './widgets-api';

/** Analytics' requests per widget (the last 30 days), every widget listed, busiest first. */
export function WidgetRequests({ labelledBy }: { labelledBy: string }) {
  const query = useQuery({ queryKey: ['analytics', 'widgets'], queryFn: ({ signal }) => widgetsApi.requests(signal) });
  const rows = [...(query.data ?? [])].sort((a, b) => b.requests - a.requests);
  if (query.isError) return <p>Requests per widget could not be loaded.</p>;
  if (rows.length === 0) return <p>{query.isLoading ? 'Loading…' : 'No widgets yet.'}</p>;
  return (
    <table className="analytics-table" aria-labelledby={labelledBy}>
      <thead>
        <tr>
          <th scope="col">Widget</th>
          <th scope="col">Requests (30 days)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td>{row.name}</td>
            <td>{row.requests.toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
