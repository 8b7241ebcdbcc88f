import sys,re,statistics as st,collections
d=collections.defaultdict(list)
for f in sys.argv[1:]:
  for l in open(f):
    if 'RESULT' not in l: continue
    kv=dict(re.findall(r'(\w+)=(\S+)',l))
    d[(kv['tls'],kv['op'],kv['lib'],kv['mode'],kv['origins'])].append(float(kv['value']))
keys=sorted(set((k[0],k[1],k[2]) for k in d))
print("tls op lib | thr1 thr2 ratio | proc1 proc2 ratio | n")
for t,o,lib in keys:
  g=lambda m,k: st.median(d[(t,o,lib,m,k)]) if d[(t,o,lib,m,k)] else float('nan')
  t1,t2,p1,p2=g('threads','1'),g('threads','2'),g('procs','1'),g('procs','2')
  print(f"{t} {o} {lib} | {t1:.3f} {t2:.3f} {t2/t1:.2f}x | {p1:.3f} {p2:.3f} {p2/p1:.2f}x | {len(d[(t,o,lib,'threads','1')])}")
