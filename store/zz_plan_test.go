package store
import ("context";"testing";"fmt")
func TestZZPlan(t *testing.T){
 st:=openTemp(t); ctx:=context.Background()
 for _,f:=range []CandidateFilter{{ExcludeSampled:true},{By:"tool",ExcludeSampled:true},{By:"meta.cohort",ExcludeSampled:true},{By:"tool",Where:[]Condition{{"meta.cohort","x"}},Turns:"calls",ExcludeSampled:true}}{
  for _,w:=range []bool{true,false}{
  q,args,_:=candidateQuery(f,w)
  rows,err:=st.r.QueryContext(ctx,"EXPLAIN QUERY PLAN "+q,args...)
  if err!=nil{t.Fatal(err)}
  for rows.Next(){var a,b,c int; var d string; rows.Scan(&a,&b,&c,&d); fmt.Println(w, d)}
  rows.Close()}
 }
}
