import SearchIcon from '@mui/icons-material/Search';
import { Autocomplete, Box, InputAdornment, TextField, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../api/client';

/** A hit of `GET /api/search`: what the box shows and where it leads. */
interface SearchHit {
  readonly kind: string;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly match: string;
  readonly link: string;
}

/** `source_code_version` → `Source code version`. */
const kindLabel = (kind: string): string => {
  const words = kind.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Whether a key press is typing into something (where `/` is a character, not the shortcut). */
const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * The search box of the app bar: one search across every kind the caller may read, best match first
 * (GET /api/search). `/` or Ctrl-K (⌘-K) focuses it from anywhere; choosing a hit opens its page.
 */
export function SearchBox() {
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [hits, setHits] = useState<readonly SearchHit[]>([]);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const shortcut = (event.key === 'k' || event.key === 'K') && (event.ctrlKey || event.metaKey);
      if (!shortcut && !(event.key === '/' && !typing(event.target))) return;
      event.preventDefault();
      input.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const q = text.trim();
    if (q === '') {
      setHits([]);
      return;
    }
    // One request per pause in typing; a newer text cancels the older request.
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setLoading(true);
      api<SearchHit[]>(`/api/search?q=${encodeURIComponent(q.slice(0, 200))}&range=${encodeURIComponent('[0,10]')}`, {
        signal: controller.signal,
      })
        .then((response) => setHits(response.body))
        .catch(() => setHits([]))
        .finally(() => setLoading(false));
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text]);

  return (
    <Autocomplete
      sx={{ width: 320, mr: 2, '& .MuiInputBase-root': { bgcolor: 'rgba(255,255,255,0.15)', color: 'inherit' } }}
      size="small"
      options={[...hits]}
      filterOptions={(options) => options}
      getOptionLabel={(hit) => hit.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      loading={loading}
      noOptionsText={text.trim() === '' ? 'Type to search every kind' : 'Nothing found'}
      value={null}
      inputValue={text}
      onInputChange={(_event, value, reason) => {
        if (reason !== 'reset') setText(value);
      }}
      onChange={(_event, hit) => {
        if (!hit) return;
        setText('');
        input.current?.blur();
        void navigate(hit.link);
      }}
      renderOption={({ key, ...props }, hit) => (
        <Box component="li" key={key} {...props}>
          <Box>
            <Typography variant="body2">{hit.name}</Typography>
            <Typography variant="caption" color="text.secondary">
              {kindLabel(hit.kind)}
              {hit.match === 'description' && hit.description ? ` · ${hit.description.slice(0, 80)}` : ''}
            </Typography>
          </Box>
        </Box>
      )}
      renderInput={(params) => (
        <TextField
          {...params}
          inputRef={input}
          placeholder="Search (/ or Ctrl-K)"
          slotProps={{
            htmlInput: { ...params.slotProps.htmlInput, 'aria-label': 'Search every kind' },
            input: {
              ...params.slotProps.input,
              startAdornment: (
                <InputAdornment position="start" sx={{ color: 'inherit' }}>
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      )}
    />
  );
}
