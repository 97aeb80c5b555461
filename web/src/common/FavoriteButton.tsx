import StarIcon from '@mui/icons-material/Star';
import StarBorderIcon from '@mui/icons-material/StarBorder';
import { Button } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNotify, useRecordContext, useResourceContext } from 'react-admin';
import { api } from '../api/client';
import { messageOf } from '../api/problem';

/** One of the caller's favorites (GET /api/favorites). */
export interface Favorite {
  readonly entityType: string;
  readonly plural: string;
  readonly entityId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly link: string;
}

/** The caller's favorites, shared by every star and the dashboard (one request, refreshed after a change). */
export function useFavorites(): readonly Favorite[] | undefined {
  return useQuery({ queryKey: ['favorites'], queryFn: async () => (await api<Favorite[]>('/api/favorites')).body }).data;
}

/** The kind of a REST collection: `source_codes` → `source_code`. */
const kindOf = (plural: string): string => plural.replace(/s$/, '');

/** Star or unstar the entity of the page (PUT/DELETE /api/favorites/{entityType}/{id}). */
export function FavoriteButton() {
  const record = useRecordContext<{ id: string }>();
  const resource = useResourceContext() ?? '';
  const favorites = useFavorites();
  const client = useQueryClient();
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  const starred = favorites?.some((favorite) => favorite.entityId === record.id) ?? false;
  const toggle = async () => {
    setBusy(true);
    try {
      await api(`/api/favorites/${kindOf(resource)}/${record.id}`, { method: starred ? 'DELETE' : 'PUT' });
      await client.invalidateQueries({ queryKey: ['favorites'] });
    } catch (error) {
      notify(messageOf(error), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button
      size="small"
      onClick={toggle}
      disabled={busy || favorites === undefined}
      aria-pressed={starred}
      startIcon={starred ? <StarIcon /> : <StarBorderIcon />}
    >
      {starred ? 'Starred' : 'Star'}
    </Button>
  );
}
